-- What a ledger row is for: a usage row charged through DebitBatch names its model.
ALTER TABLE ledger ADD COLUMN description text;
