"""Finding a wrong gradient: compare the gradient flowrt computes with finite
differences (fr.test.compute_gradient_error), then look at the Jacobians.

The custom gradient below forgets the chain rule's factor of 2 for x**2.

Run: python examples/debug_wrong_gradient.py
"""

import numpy as np

import flowrt as fr


@fr.RegisterGradient("ForgetfulSquare")
def _forgetful_square_grad(op, grad):
    return [grad * op.inputs[0]]  # should be grad * 2 * x


def main():
    x = fr.placeholder(fr.float64, [3], name="x")
    good = fr.reduce_sum(fr.square(x) * fr.sin(x), name="good")
    with fr.get_default_graph().gradient_override_map({"Square": "ForgetfulSquare"}):
        bad = fr.reduce_sum(fr.square(x) * fr.sin(x), name="bad")

    x0 = np.array([0.5, 1.0, 2.0])
    with fr.Session() as sess, sess.as_default():
        for y in (good, bad):
            err = fr.test.compute_gradient_error(x, [3], y, [], x_init_value=x0)
            print("%-4s max |theoretical - numerical| = %.2e" % (y.op.name, err))
        theoretical, numerical = fr.test.compute_gradient(x, [3], bad, [], x_init_value=x0)
    print("d bad / dx  flowrt:   ", np.round(theoretical.ravel(), 4))
    print("d bad / dx  numerical:", np.round(numerical.ravel(), 4))


if __name__ == "__main__":
    main()
