"""fabrictwin.node"""
