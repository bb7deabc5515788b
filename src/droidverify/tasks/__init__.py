"""droidverify.tasks"""
