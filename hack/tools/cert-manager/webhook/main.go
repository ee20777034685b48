// Command webhook is cert-manager's admission webhook (cmd/webhook/app of the pinned release).
package main

import (
	"flag"

	"github.com/cert-manager/cert-manager/cmd/util"
	"github.com/cert-manager/cert-manager/cmd/webhook/app"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
)

func main() {
	stop, exit := util.SetupExitHandler(util.GracefulShutdown)
	defer exit() // may call os.Exit: runs last
	logf.InitLogs(flag.CommandLine)
	defer logf.FlushLogs()

	cmd := app.NewServerCommand(stop)
	cmd.Flags().AddGoFlagSet(flag.CommandLine)
	_ = flag.CommandLine.Parse(nil) // marks the Go flags parsed (klog asks); cobra parses the arguments
	if err := cmd.Execute(); err != nil {
		logf.Log.Error(err, "failed to run the cert-manager webhook")
		util.SetExitCode(err)
	}
}
