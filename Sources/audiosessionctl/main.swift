import AudioSessionCLI

AudioSessionCtl.main()
