"""A predicate inherited from another module, built on one imported from a third."""
from proj.preprocessing import PreprocessingLayer
from proj.tensor_utils import tf


class Tokenizer(PreprocessingLayer):
    def call(self, x):
        if self._use_tf_workflow():
            return self._call_tf(x)
        print(x.numpy())
        return self._call_python(x)

    def _call_tf(self, x):
        print(x)  # expect: TFF101
        return tf.py_function(self._to_python, [x], Tout=tf.string)

    def _to_python(self, x):
        return x.numpy()

    def _call_python(self, x):
        return x.numpy().tolist()
