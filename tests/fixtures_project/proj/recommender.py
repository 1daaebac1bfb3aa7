from .ownsteps import AdversarialModel, SamplingModel


class Recommender:
    """The project's own training loop: it runs the models' steps itself."""

    def __init__(self):
        self._model = AdversarialModel()
        self._sampler = SamplingModel()

    def train(self, batches, adversarial):
        loss = 0.0
        for batch in batches:
            loss += self._model.train_step(batch, adversarial).numpy()
        self._sampler.train_step()
        return loss
