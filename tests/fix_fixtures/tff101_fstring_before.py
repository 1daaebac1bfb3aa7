import tensorflow as tf


@tf.function
def step(loss, step, x):
    print(f"loss {loss} at {step}")
    print("epoch", f"{step} of {x}", end="\n")
    print(f"  {x}  ")
    print(f"{{ {x} }}")
    print(rf"\d {x}")
    print(f"""two
lines {x} end""")
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
