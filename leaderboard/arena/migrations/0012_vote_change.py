"""The log of changes to counted votes' rating inputs (``VoteChange``), written by PostgreSQL triggers
on the votes, battles, turns and attributions; on other databases the table exists and stays empty (the
ratings task then reads every vote each time)."""

from django.db import migrations, models

_TRIGGERS = """
CREATE FUNCTION arena_vote_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO arena_votechange (vote_id, at) VALUES (OLD.id, now());
    RETURN NULL;
END $$;
CREATE TRIGGER arena_vote_changed AFTER UPDATE OF valid, winner, battle_id, created_at OR DELETE ON arena_vote
    FOR EACH ROW EXECUTE FUNCTION arena_vote_changed();

CREATE FUNCTION arena_battle_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO arena_votechange (vote_id, at) SELECT v.id, now() FROM arena_vote v WHERE v.battle_id = NEW.id;
    RETURN NULL;
END $$;
CREATE TRIGGER arena_battle_changed AFTER UPDATE OF features_a, features_b, primary_intent, languages, extra, model_a_id,
    model_b_id, setting, conv_id, propensity ON arena_battle FOR EACH ROW EXECUTE FUNCTION arena_battle_changed();

CREATE FUNCTION arena_turn_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO arena_votechange (vote_id, at)
    SELECT v.id, now() FROM arena_vote v WHERE v.battle_id = (CASE WHEN TG_OP = 'DELETE' THEN OLD.battle_id ELSE NEW.battle_id END);
    RETURN NULL;
END $$;
CREATE TRIGGER arena_turn_changed AFTER INSERT OR DELETE OR UPDATE OF battle_id ON arena_turn
    FOR EACH ROW EXECUTE FUNCTION arena_turn_changed();

CREATE FUNCTION arena_attribution_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO arena_votechange (vote_id, at)
    SELECT v.id, now() FROM arena_turn t JOIN arena_vote v ON v.battle_id = t.battle_id
    WHERE t.id IN (CASE WHEN TG_OP = 'INSERT' THEN NULL ELSE OLD.turn_id END, CASE WHEN TG_OP = 'DELETE' THEN NULL ELSE NEW.turn_id END);
    RETURN NULL;
END $$;
CREATE TRIGGER arena_attribution_changed AFTER INSERT OR UPDATE OR DELETE ON arena_turnattribution
    FOR EACH ROW EXECUTE FUNCTION arena_attribution_changed();
"""

_DROP = """
DROP TRIGGER IF EXISTS arena_attribution_changed ON arena_turnattribution;
DROP TRIGGER IF EXISTS arena_turn_changed ON arena_turn;
DROP TRIGGER IF EXISTS arena_battle_changed ON arena_battle;
DROP TRIGGER IF EXISTS arena_vote_changed ON arena_vote;
DROP FUNCTION IF EXISTS arena_attribution_changed(), arena_turn_changed(), arena_battle_changed(), arena_vote_changed();
"""


def _run(sql):
    def run(apps, schema_editor):
        if schema_editor.connection.vendor == "postgresql":
            schema_editor.execute(sql)
    return run


class Migration(migrations.Migration):

    dependencies = [
        ('arena', '0011_topic_snapshot'),
    ]

    operations = [
        migrations.CreateModel(
            name='VoteChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('vote_id', models.BigIntegerField()),
                ('at', models.DateTimeField(auto_now_add=True, db_index=True)),
            ],
        ),
        migrations.RunPython(_run(_TRIGGERS), _run(_DROP)),
    ]
