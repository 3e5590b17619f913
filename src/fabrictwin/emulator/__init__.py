"""fabrictwin.emulator"""
