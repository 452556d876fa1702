"""Skip-gram word2vec: word embeddings learned with embedding_lookup and nce_loss.

The TF1 original is the basic word2vec tutorial of TensorFlow 1.x
(tensorflow/examples/tutorials/word2vec/word2vec_basic.py): build a vocabulary, turn
the text into word ids, generate (center word, context word) batches in numpy, look the
center words up in an embedding matrix with tf.nn.embedding_lookup, train with the noise
contrastive estimation loss tf.nn.nce_loss and tf.train.GradientDescentOptimizer, then
list each probe word's nearest neighbours by cosine similarity of the normalized
embeddings. Instead of the 17-million-word text8 corpus it reads a primer of about
2,600 words that ships with the project (examples/data/farm_primer.txt), so the
neighbours come from a small, repetitive text. Only the import differs from the TF1
program.

Run: python examples/word2vec_skipgram.py
"""

import collections
import random
import re
from pathlib import Path

import numpy as np

import flowrt as tf

TEXT = Path(__file__).resolve().parent / "data" / "farm_primer.txt"
BATCH_SIZE = 128
EMBEDDING_SIZE = 32  # dimension of the embedding vectors
SKIP_WINDOW = 2  # how many words to consider left and right
NUM_SKIPS = 4  # how many times to reuse an input to generate a label
NUM_SAMPLED = 16  # number of negative examples to sample
NUM_STEPS = 4001
PROBE_WORDS = ["monday", "cow", "red", "three", "mother", "summer", "king"]


# Step 1: read the text as a list of lower-case words.
def read_data(path):
    return re.findall(r"[a-z]+", path.read_text(encoding="utf-8").lower())


vocabulary = read_data(TEXT)
print("data size", len(vocabulary))


# Step 2: build the dictionary; every word of this small text gets an id (0 is UNK,
# for words seen once, as the tutorial replaces rare words).
def build_dataset(words, min_count=2):
    count = [["UNK", -1]]
    count.extend((w, c) for w, c in collections.Counter(words).most_common() if c >= min_count)
    dictionary = {word: i for i, (word, _) in enumerate(count)}
    data = [dictionary.get(word, 0) for word in words]
    count[0][1] = data.count(0)
    reversed_dictionary = dict(zip(dictionary.values(), dictionary.keys(), strict=True))
    return data, count, dictionary, reversed_dictionary


data, count, dictionary, reverse_dictionary = build_dataset(vocabulary)
vocabulary_size = len(dictionary)
del vocabulary
print("vocabulary size", vocabulary_size)
print("most common words (+UNK)", count[:8])
print("sample data", data[:10], [reverse_dictionary[i] for i in data[:10]])

data_index = 0


# Step 3: generate a training batch for the skip-gram model.
def generate_batch(batch_size, num_skips, skip_window):
    global data_index
    assert batch_size % num_skips == 0
    assert num_skips <= 2 * skip_window
    batch = np.ndarray(shape=(batch_size,), dtype=np.int32)
    labels = np.ndarray(shape=(batch_size, 1), dtype=np.int32)
    span = 2 * skip_window + 1  # [ skip_window target skip_window ]
    buffer = collections.deque(maxlen=span)
    if data_index + span > len(data):
        data_index = 0
    buffer.extend(data[data_index : data_index + span])
    data_index += span
    for i in range(batch_size // num_skips):
        context_words = [w for w in range(span) if w != skip_window]
        words_to_use = random.sample(context_words, num_skips)
        for j, context_word in enumerate(words_to_use):
            batch[i * num_skips + j] = buffer[skip_window]
            labels[i * num_skips + j, 0] = buffer[context_word]
        if data_index == len(data):
            buffer.extend(data[0:span])
            data_index = span
        else:
            buffer.append(data[data_index])
            data_index += 1
    # Backtrack a little bit to avoid skipping words in the end of a batch
    data_index = (data_index + len(data) - span) % len(data)
    return batch, labels


random.seed(0)
batch, labels = generate_batch(batch_size=8, num_skips=2, skip_window=1)
for i in range(4):
    print(
        batch[i], reverse_dictionary[batch[i]], "->", labels[i, 0], reverse_dictionary[labels[i, 0]]
    )

# Step 4: build and train a skip-gram model.
valid_examples = np.array([dictionary[w] for w in PROBE_WORDS], dtype=np.int32)

graph = tf.Graph()
with graph.as_default():
    tf.set_random_seed(0)
    # Input data.
    train_inputs = tf.placeholder(tf.int32, shape=[BATCH_SIZE])
    train_labels = tf.placeholder(tf.int32, shape=[BATCH_SIZE, 1])
    valid_dataset = tf.constant(valid_examples, dtype=tf.int32)

    # Look up embeddings for inputs.
    embeddings = tf.Variable(
        tf.random_uniform([vocabulary_size, EMBEDDING_SIZE], -1.0, 1.0), name="embeddings"
    )
    embed = tf.nn.embedding_lookup(embeddings, train_inputs)

    # Construct the variables for the NCE loss.
    nce_weights = tf.Variable(
        tf.truncated_normal(
            [vocabulary_size, EMBEDDING_SIZE], stddev=1.0 / np.sqrt(EMBEDDING_SIZE)
        ),
        name="nce_weights",
    )
    nce_biases = tf.Variable(tf.zeros([vocabulary_size]), name="nce_biases")

    # Compute the average NCE loss for the batch. tf.nn.nce_loss automatically draws a
    # new sample of the negative labels each time we evaluate the loss.
    loss = tf.reduce_mean(
        tf.nn.nce_loss(
            weights=nce_weights,
            biases=nce_biases,
            labels=train_labels,
            inputs=embed,
            num_sampled=NUM_SAMPLED,
            num_classes=vocabulary_size,
        )
    )

    # Construct the SGD optimizer using a learning rate of 1.0.
    optimizer = tf.train.GradientDescentOptimizer(1.0).minimize(loss)

    # Compute the cosine similarity between the probe words and all embeddings.
    norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keepdims=True))
    normalized_embeddings = embeddings / norm
    valid_embeddings = tf.nn.embedding_lookup(normalized_embeddings, valid_dataset)
    similarity = tf.matmul(valid_embeddings, normalized_embeddings, transpose_b=True)

    init = tf.global_variables_initializer()


def print_neighbours(sim, top_k=5):
    for i, word in enumerate(PROBE_WORDS):
        nearest = (-sim[i, :]).argsort()[1 : top_k + 1]
        print(
            "  nearest to %-8s %s" % (word + ":", ", ".join(reverse_dictionary[k] for k in nearest))
        )


# Step 5: begin training.
with tf.Session(graph=graph) as session:
    init.run()
    print("initialized")
    average_loss = 0
    for step in range(NUM_STEPS):
        batch_inputs, batch_labels = generate_batch(BATCH_SIZE, NUM_SKIPS, SKIP_WINDOW)
        feed_dict = {train_inputs: batch_inputs, train_labels: batch_labels}
        _, loss_val = session.run([optimizer, loss], feed_dict=feed_dict)
        average_loss += loss_val
        if step % 500 == 0:
            if step > 0:
                average_loss /= 500
            # The average loss is an estimate of the loss over the last 500 batches.
            print("average loss at step", step, ":", round(float(average_loss), 4))
            average_loss = 0
    print("nearest neighbours by cosine similarity:")
    print_neighbours(similarity.eval())
    final_embeddings = normalized_embeddings.eval()
    print("final embeddings", final_embeddings.shape)
