"""fabrictwin.web"""
