"""Names for `from .starutils import *` (gpt-2-tensorflow2.0's utils.tf_utils)."""
import time as _time

import numpy as np
import tensorflow as tf


def now():
    return _time.time()
