package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"github.com/taxkernel/taxkernelbot/internal/cli"
)

func main() {
	runtime.GOMAXPROCS(cli.Procs())
	// SIGINT/SIGTERM stop new dispatches; the command then saves what it
	// has and exits.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The credentials are read once and leave the process's environment
	// before anything can start a child.
	getenv := cli.TakeEnvironment()
	code := cli.Main(ctx, os.Args[1:], cli.IO{Out: os.Stdout, Err: os.Stderr, Getenv: getenv})
	stop()
	os.Exit(code)
}
