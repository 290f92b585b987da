import Foundation
import VeinCLI

exit(VeinCommandLine.main())
