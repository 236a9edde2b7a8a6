"""Suites as code: every server, scenario, scorer and provider as one YAML file, exported, validated and applied.

Pure, Django-free modules: `source` (YAML with line numbers), `sections/` (one small module per top-level key: its
JSON Schema and defaults), `schema` (the published suite JSON Schema), `validation` (errors naming file, line and
JSON pointer, with suggestions), `plan` (what applying would create, change field by field, and delete) and
`mcptest` (an mcptest v1 suite converted, with a report of everything that did not carry over). The Django layer is
`store` (read records in the file's shape, write entries back) and `services` (export, plan, apply in one
transaction), which the `evalhub` command, the API and the Scenarios page call.
"""
