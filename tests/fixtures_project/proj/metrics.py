from proj import cycle_a


def accuracy(x):
    print("accuracy")  # expect: TFF101
    return cycle_a.ping(x)
