"""VIPS"""
