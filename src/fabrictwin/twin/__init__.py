"""fabrictwin.twin"""
