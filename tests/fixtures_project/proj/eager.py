def only_eager(x):
    print(x)
    return x
