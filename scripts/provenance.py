"""Rule provenance: per output under results/, its metadata block and data hash (one JSON)."""

from pathlib import Path

from paramid import io, provenance


def main(smk) -> None:
    log = io.start_log(smk.log[0], "provenance")
    own = Path(smk.output[0]).as_posix()
    files = [rel for rel in provenance.list_outputs(".", "results") if rel != own]
    # the checkout that holds this script, i.e. the workflow's own repository
    commit = io.git_commit(Path(smk.scriptdir))
    record = provenance.collect(".", files, commit)
    io.write_json(record, smk.output[0])
    log.info("%d outputs recorded; git commit %s", len(files), commit)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
