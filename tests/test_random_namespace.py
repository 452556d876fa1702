"""fr.random (TF 1.13+'s tf.random names) and the He/LeCun initializers of
fr.initializers."""

import numpy as np

import flowrt as fr


def test_tf_random_names_are_the_random_ops():
    assert fr.random.normal is fr.random_normal and fr.random.uniform is fr.random_uniform
    assert (
        fr.random.shuffle is fr.random_shuffle and fr.random.set_random_seed is fr.set_random_seed
    )
    assert fr.random.truncated_normal is fr.truncated_normal
    fr.random.set_random_seed(3)
    c = fr.random.categorical([[-50.0, 0.0], [0.0, -50.0]], 4, dtype=fr.int32)
    assert c.name == "categorical/Multinomial:0" and c.dtype == fr.int32
    assert c.shape.as_list() == [2, 4]
    with fr.Session() as s:
        np.testing.assert_array_equal(s.run(c), [[1] * 4, [0] * 4])


def test_he_and_lecun_initializers_scale_by_fan_in():
    fr.set_random_seed(1)
    shape = [3, 3, 32, 64]  # fan_in 288
    inits = {
        "he_normal": fr.initializers.he_normal(),
        "he_uniform": fr.initializers.he_uniform(),
        "lecun_normal": fr.initializers.lecun_normal(seed=2),
        "lecun_uniform": fr.initializers.lecun_uniform(),
    }
    vs = {k: fr.get_variable(k, shape, initializer=i) for k, i in inits.items()}
    with fr.Session() as s:
        s.run(fr.global_variables_initializer())
        r = s.run(vs)
    for k, scale in (("he", 2.0), ("lecun", 1.0)):
        want = np.sqrt(scale / 288)
        np.testing.assert_allclose(r[k + "_normal"].std(), want, rtol=0.03)
        np.testing.assert_allclose(r[k + "_uniform"].std(), want, rtol=0.03)
        assert np.abs(r[k + "_uniform"]).max() <= np.sqrt(3.0) * want
