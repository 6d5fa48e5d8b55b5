#!/usr/bin/env python3
"""Prints an ONNX text model whose graph nests DEPTH subgraphs through
graph-valued attributes, deeper than the importer's protobuf recursion limit."""
import sys

depth = int(sys.argv[1])
inner = 'name: "leaf"'
for i in range(depth):
    inner = ('name: "g%d" node { op_type: "If" attribute { name: "then_branch" '
             'type: GRAPH g { %s } } }' % (i, inner))
print('ir_version: 8\nopset_import { domain: "" version: 17 }\ngraph { %s }' % inner)
