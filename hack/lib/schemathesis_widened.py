"""Prints the operations hack/schemathesis.toml lets answer more than
schemathesis's default to a valid request, and fails on an entry that names
no operation: what the config widens is then seen in every run, not assumed.

    python schemathesis_widened.py CONFIG OPENAPI_URL
"""

import sys

import schemathesis
from schemathesis.config import SchemathesisConfig


def main(config_path: str, document_url: str) -> int:
    config = SchemathesisConfig.from_path(config_path)
    schema = schemathesis.openapi.from_url(document_url, config=config)
    operations = [result.ok() for result in schema.get_all_operations()]
    default = schema.config.checks.positive_data_acceptance.expected_statuses
    entries = schema.config.operations.operations
    unused = [
        index
        for index, entry in enumerate(entries, 1)
        if not any(entry._filter_set.applies_to(operation=op) for op in operations)
    ]
    for op in operations:
        statuses = schema.config.checks_config_for(operation=op).positive_data_acceptance.expected_statuses
        extra = [s for s in statuses if s not in default]
        if extra:
            print(f"  {op.label}: also {', '.join(extra)}")
    for index in unused:
        print(f"entry {index} of {config_path} names no operation", file=sys.stderr)
    return 1 if unused else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
