// Package targets holds the built-in kinds of target (framework.TargetKind),
// registered on framework.Default when the package is linked in (the
// command line links it): "categorical" (framework.Categorical: classes,
// label,p:<class>… columns, accuracy, macro-F1 and the confusion matrix),
// "gaussian" (framework.Gaussian: numbers, label,var columns, R², MAE,
// RMSE) and "ordinal" (framework.Categorical read as ordered levels, the
// ordinal response's: label,median,p:<level>… columns, the categorical
// metrics plus the mean absolute error and RMSE in levels, of the label
// and of the median). Their helpers (ClassMetrics, RegressionMetrics, R2,
// LooksNumeric, Median) are exported for kinds built on them.
package targets

import (
	"strconv"

	"github.com/maslda/maslda/framework"
)

func init() {
	framework.RegisterTargetKind(Categorical{})
	framework.RegisterTargetKind(Gaussian{})
	framework.RegisterTargetKind(Ordinal{})
}

// FormatFloat is the text of a number in posterior and prediction files
// (10 significant digits).
func FormatFloat(x float64) string { return strconv.FormatFloat(x, 'g', 10, 64) }

// onlyTheta reports whether every column is a topic proportion (theta:k).
func onlyTheta(cols []string) bool {
	for _, c := range cols {
		if len(c) < 6 || c[:6] != "theta:" {
			return false
		}
	}
	return true
}
