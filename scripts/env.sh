# Sourced by the scripts: where tools live, and PATH to find them.
export OUTBOX_LAB_TOOLS="${OUTBOX_LAB_TOOLS:-$HOME/.cache/outbox-lab/tools}"
export PATH="$HOME/.cargo/bin:$OUTBOX_LAB_TOOLS/node_modules/.bin:$PATH"
