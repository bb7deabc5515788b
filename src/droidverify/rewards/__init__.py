"""droidverify.rewards"""
