import AudioSessionCLI

AudioSessionCtl.runAsProcess()
