import argparse

import tensorflow as tf

from nets import blocks, norms
from nets.heads import build
from nets.layers import Gate, make_head

parser = argparse.ArgumentParser()
parser.add_argument("--block", default="Residual")
parser.add_argument("--head", default="Linear")
args = parser.parse_args()

model = tf.keras.Sequential([Gate(), getattr(blocks, args.block)(), make_head(),
                             build(args.head), norms.Scale()])
model.compile("adam", "mse")
model.fit(tf.zeros((8, 4)), tf.zeros((8, 4)))
