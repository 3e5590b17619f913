"""fabrictwin.netsolver"""
