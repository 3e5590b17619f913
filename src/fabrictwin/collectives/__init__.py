"""fabrictwin.collectives"""
