"""fabrictwin.fleet"""
