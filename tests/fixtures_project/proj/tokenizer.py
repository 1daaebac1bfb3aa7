"""A predicate inherited from another module, built on one imported from a third."""
from proj.preprocessing import PreprocessingLayer
from proj.tensor_utils import in_grain_data_pipeline, tf


class Tokenizer(PreprocessingLayer):
    def call(self, x):
        if self._use_tf_workflow():
            return self._call_tf(x)
        print(x.numpy())
        return self._call_python(x)

    def _call_tf(self, x):
        print("tokenizing", x.numpy())  # expect: TFF204
        return tf.py_function(self._to_python, [x], Tout=tf.string)

    def _to_python(self, x):
        return x.numpy()

    def _call_python(self, x):
        return x.numpy().tolist()


class Splitter(PreprocessingLayer):
    def call(self, x):
        if not tf.executing_eagerly() and tf.is_tensor(x):
            return tf.strings.split(x)
        if tf.is_tensor(x):
            x = x.numpy()
        return x


class Converter(PreprocessingLayer):
    def call(self, x):
        if in_grain_data_pipeline():
            return self._to_numpy(x)  # a library predicate, re-exported by a project module
        return x

    def _to_numpy(self, x):
        return x.numpy()
