"""The experiment harness: experiment files expanded into cells, run on a
process pool or a Dask cluster into a resumable SQLite store, then tables,
figures, statements, the HTML report, the certified corpus and regression
checks against it."""
