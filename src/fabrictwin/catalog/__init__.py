"""fabrictwin.catalog"""
