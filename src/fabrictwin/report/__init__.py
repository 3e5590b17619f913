"""fabrictwin.report"""
