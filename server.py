"""Run the ratai gRPC service: ``python server.py --port 50051 [--db PATH] [--workers N]``.

The same entry point as ``ratai serve``; ``--help`` lists every limit and option.
"""

import sys

from ratai.service import serve

if __name__ == "__main__":
    sys.exit(serve(sys.argv[1:]))
