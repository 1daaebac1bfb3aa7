import tensorflow as tf


@tf.function
def step(loss, step, x):
    tf.print("loss", loss, "at", step)
    tf.print("epoch", step, "of", x, end="\n")
    tf.print(" ", x, " ")
    tf.print("{", x, "}")
    tf.print(r"\d", x)
    tf.print("""two
lines""", x, """end""")
    print(f"{x:.2f}")
    print(f"{x!r}")
    print(f"{x=}")
    print(f"{loss}{step}")
    print(f"{loss}:{step}")
    print(f"a {x}", sep="-")
    print("a" f"{x}")
    print("v: %s" % x)
    print("v: {}".format(x))
    print(str(x))
    return x
