import keras

from proj.tensor_utils import in_tf_function


class PreprocessingLayer(keras.layers.Layer):
    def _use_tf_workflow(self):
        if in_tf_function():
            return True
        return not self.trainable
