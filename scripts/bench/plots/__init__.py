"""The papers' figures drawn from the benchmark CSVs of scripts/results/ (entry point:
scripts/bench/plot.py). One module per family of figures: mono (Fig. 3, 4), classes (Fig. 5),
multi (Fig. 6, 14), tridiag (Fig. 9-12), padding (Fig. 13); data reads the CSVs and style holds
the look they share. Only data is imported before matplotlib is known to be installed."""
