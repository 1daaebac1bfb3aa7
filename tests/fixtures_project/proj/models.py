from proj.layers import Base


class Block(Base):
    def call(self, x):
        print("call", x)  # expect: TFF101
        return self.helper(x)


class Plain:
    def call(self, x):
        print(x)
        return x
