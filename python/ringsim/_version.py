"""The package's version: the project's (CMakeLists.txt); tests/python checks that they agree."""
__version__ = "0.1.0"
