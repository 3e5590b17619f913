"""fabrictwin.timeline"""
