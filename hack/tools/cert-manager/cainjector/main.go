// Command cainjector is cert-manager's CA injector (cmd/cainjector/app of the pinned release).
package main

import (
	"context"
	"flag"
	"os"

	"github.com/cert-manager/cert-manager/cmd/cainjector/app"
	"github.com/cert-manager/cert-manager/cmd/util"
	logf "github.com/cert-manager/cert-manager/pkg/logs"
	ctrl "sigs.k8s.io/controller-runtime"
)

func main() {
	stop, exit := util.SetupExitHandler(util.GracefulShutdown)
	defer exit() // may call os.Exit: runs last
	logf.InitLogs(flag.CommandLine)
	defer logf.FlushLogs()
	ctrl.SetLogger(logf.Log)

	cmd := app.NewCommandStartInjectorController(util.ContextWithStopCh(context.Background(), stop), os.Stdout, os.Stderr)
	cmd.Flags().AddGoFlagSet(flag.CommandLine)
	_ = flag.CommandLine.Parse(nil) // marks the Go flags parsed (klog asks); cobra parses the arguments
	if err := cmd.Execute(); err != nil {
		cmd.PrintErrln(err)
		util.SetExitCode(err)
	}
}
