"""The engine: shapes, graphs, the op registry, plans, the executor, resources and queues."""
