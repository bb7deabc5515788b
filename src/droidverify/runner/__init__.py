"""droidverify.runner"""
