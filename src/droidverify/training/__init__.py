"""droidverify.training"""
