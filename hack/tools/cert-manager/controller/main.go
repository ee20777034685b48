// Command controller is cert-manager's controller (cmd/controller/app of the pinned release).
package main

import (
	"flag"

	"github.com/cert-manager/cert-manager/cmd/controller/app"
	"github.com/cert-manager/cert-manager/cmd/util"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
)

func main() {
	stop, exit := util.SetupExitHandler(util.GracefulShutdown)
	defer exit() // may call os.Exit: runs last
	logf.InitLogs(flag.CommandLine)
	defer logf.FlushLogs()

	cmd := app.NewCommandStartCertManagerController(stop)
	cmd.Flags().AddGoFlagSet(flag.CommandLine)
	_ = flag.CommandLine.Parse(nil) // marks the Go flags parsed (klog asks); cobra parses the arguments
	if err := cmd.Execute(); err != nil {
		logf.Log.Error(err, "failed to run the cert-manager controller")
		util.SetExitCode(err)
	}
}
