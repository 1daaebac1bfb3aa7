def l2(x):
    print("l2")  # expect: TFF101
    return x


def never_called(x):
    print(x)
    return x
