"""fabrictwin.topology"""
