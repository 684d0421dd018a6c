"""Loads a script of scripts/ (files without a .py suffix) as a module, for the tests."""
import importlib.machinery
import importlib.util
import os

SCRIPTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_script(filename, module_name):
    loader = importlib.machinery.SourceFileLoader(module_name, os.path.join(SCRIPTS, filename))
    spec = importlib.util.spec_from_loader(module_name, loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod
