from .ownloop import OwnLoopModel


def train(batches, optimizer):
    model = OwnLoopModel()
    for inputs, targets in batches:
        model.train_step(optimizer, inputs, targets)
    return [model.predict_step(inputs) for inputs, _ in batches]
