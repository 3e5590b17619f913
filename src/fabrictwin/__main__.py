from fabrictwin.cli.main import main

main()
