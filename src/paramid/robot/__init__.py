"""Robots from a URDF (placeholder)."""
