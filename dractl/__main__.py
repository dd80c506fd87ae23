from dractl.cli.main import main

main()
