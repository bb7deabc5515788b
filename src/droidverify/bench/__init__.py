"""droidverify.bench"""
