package main

import (
	"syscall"
	"testing"
)

// TestDeliverStop checks that a command that stops gracefully gets the
// first two signals, and that a third is not taken from the process,
// which it then ends (see handleInterrupts).
func TestDeliverStop(t *testing.T) {
	if deliverStop(syscall.SIGTERM) {
		t.Fatal("a signal was delivered with no command to stop")
	}
	c, release := notifyStop()
	defer release()
	for i := range maxStopSignals {
		if !deliverStop(syscall.SIGINT) {
			t.Fatalf("signal %d was not delivered", i+1)
		}
	}
	if deliverStop(syscall.SIGINT) {
		t.Errorf("signal %d was taken by a command that had %d already: it must end the process", maxStopSignals+1, maxStopSignals)
	}
	if len(c) != maxStopSignals {
		t.Errorf("the command got %d signals, want %d", len(c), maxStopSignals)
	}
	<-c
	if deliverStop(syscall.SIGINT) {
		t.Error("a signal was taken once the command had taken one of its two")
	}
	release()
	if deliverStop(syscall.SIGINT) {
		t.Error("a signal was delivered after release")
	}
}
