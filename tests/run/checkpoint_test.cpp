#include "run/checkpoint.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include <unistd.h>

#include "util/atomic_file.hpp"
#include "run/record_xml.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

RunRecord sample_record() {
    RunRecord record;
    record.settings = {{"seed", "5"}, {"population", "4"}};
    record.evaluator = "fake(seed=1)";
    record.measures_time = true;
    record.base_genome = "BLOCK=128";
    record.pre_tune.ran = true;
    record.pre_tune.note = "swept all 11 of 12 points";
    record.pre_tune.case_index = 2;
    record.pre_tune.space_size = 12;
    record.pre_tune.start = "";
    record.pre_tune.best = "BLOCK=128";
    record.pre_tune.start_time = Timing{1.0 / 3.0, 0.01, 5};
    record.pre_tune.best_time = Timing{0.2, 0.001, 5};
    record.pre_tune.original = Timing{1.0 / 3.0, 0.01, 5};
    TunePoint point;
    point.genome = "BLOCK=32";
    point.status = EvalStatus::Timeout;
    point.gain = 0;
    record.pre_tune.points.push_back(point);
    GenerationRecord g;
    g.index = 0;
    g.case_index = 3;
    g.original = Timing{1.25, 0.0125, 5};
    g.evaluated = 2;
    g.distinct = 2;
    g.compiled = 1;
    g.accepted = 1;
    g.best_speedup = 1.25 / 0.7;
    g.best_genome = "BLOCK=128 <_k.cu_12>";
    IndividualRecord good;
    good.genome = "BLOCK=128 <_k.cu_12>";
    good.time = Timing{0.7, 0.007, 5};
    good.accepted = true;
    good.speedup = g.best_speedup;
    IndividualRecord bad;
    bad.genome = "<_k.cu_11>+<_k.cu_10>";
    bad.status = EvalStatus::CompileError;
    bad.detail = "k.cu(12): error: \"x\" is undefined <&>\nsecond line";
    g.individuals = {good, bad};
    record.generations.push_back(g);
    record.best.found = true;
    record.best.genome = good.genome;
    record.best.speedup = g.best_speedup;
    record.best.generation = 0;
    record.best.case_index = 3;
    record.best.original = g.original;
    record.best.time = good.time;
    record.minimise.ran = true;
    record.minimise.case_index = 3;
    record.minimise.before = good.genome;
    record.minimise.after = "BLOCK=128";
    MinimiseStep step;
    step.item = "<_k.cu_12>";
    step.removed = true;
    step.reason = "removed: no loss beyond k x noise";
    step.reference = good.time;
    step.candidate = Timing{0.701, 0.007, 15};
    record.minimise.steps.push_back(step);
    record.post_tune.note = "not run: --no-post-tune";
    record.final_genome = "BLOCK=128";
    record.stop_reason = "generations";
    record.wall_seconds = 12.5;
    return record;
}

TEST(Checkpoint, RoundTripsExactly) {
    const fs::path file = fs::temp_directory_path() / ("gi-checkpoint-test-" + std::to_string(::getpid()) + ".xml");
    Checkpoint checkpoint;
    checkpoint.fingerprint = {{"kernel-sha256", "abc"}, {"seed", "5"}};
    checkpoint.phase = CheckpointPhase::Search;
    checkpoint.next_generation = 1;
    Rng rng(77);
    rng.next();
    checkpoint.rng_state = rng.save();
    checkpoint.population = {parse_genome("BLOCK=32 <_k.cu_10>"), parse_genome("<pragma_k.cu_30><pragma_K4>")};
    checkpoint.strategy_state = "opaque state";
    checkpoint.record = sample_record();
    save_checkpoint(file, checkpoint);
    const Checkpoint loaded = load_checkpoint(file);
    EXPECT_EQ(loaded.fingerprint, checkpoint.fingerprint);
    EXPECT_EQ(loaded.phase, CheckpointPhase::Search);
    EXPECT_EQ(loaded.next_generation, 1);
    EXPECT_EQ(loaded.population, checkpoint.population);
    EXPECT_EQ(loaded.strategy_state, "opaque state");
    Rng restored(0);
    restored.restore(loaded.rng_state);
    EXPECT_EQ(restored.next(), rng.next());
    // The record's XML is identical after a round trip, so resumed runs write identical run.xml.
    EXPECT_EQ(run_record_document(loaded.record), run_record_document(checkpoint.record));
    EXPECT_TRUE(loaded.record.generations[0] == checkpoint.record.generations[0]);
    EXPECT_EQ(loaded.record.generations[0].individuals[1].detail, checkpoint.record.generations[0].individuals[1].detail);
    EXPECT_TRUE(std::isnan(loaded.record.generations[0].individuals[1].time.median_ms));
    EXPECT_EQ(loaded.record.pre_tune.original.median_ms, 1.0 / 3.0);
    fs::remove(file);
    fs::remove(generation_log_path(file));
}

// The phase is typed in memory but a word in the file, the words every gi-tool version wrote, so a
// checkpoint written before the phase had a type resumes where it stopped. "start" was never saved.
TEST(Checkpoint, PhasesAreTheWordsEarlierVersionsWrote) {
    const fs::path dir = fs::temp_directory_path() / ("gi-checkpoint-phases-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path file = dir / "checkpoint.xml";
    Checkpoint checkpoint;
    checkpoint.rng_state = Rng(1).save();
    for (const auto& [phase, word] : {std::pair{CheckpointPhase::Search, "search"},
                                      std::pair{CheckpointPhase::Searched, "searched"},
                                      std::pair{CheckpointPhase::Finished, "finished"}}) {
        checkpoint.phase = phase;
        save_checkpoint(file, checkpoint);
        EXPECT_NE(read_text_file(file).find(std::string("phase=\"") + word + "\""), std::string::npos) << word;
        EXPECT_EQ(load_checkpoint(file).phase, phase) << word;
    }
    std::string text = read_text_file(file);
    text.replace(text.find("phase=\"finished\""), 16, "phase=\"start\"");
    write_file_atomically(file, text);
    try {
        load_checkpoint(file);
        FAIL() << "a checkpoint in phase 'start' was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("unknown phase 'start'"), std::string::npos) << e.what();
    }
    fs::remove_all(dir);
}

TEST(Checkpoint, FingerprintMismatchesAreListed) {
    const Fingerprint mine{{"kernel-sha256", "abc"}, {"population", "8"}, {"seed", "1"}};
    EXPECT_NO_THROW(require_same_fingerprint(mine, mine, "dir/checkpoint.xml"));
    const Fingerprint theirs{{"kernel-sha256", "abd"}, {"population", "8"}, {"colour", "red"}};
    try {
        require_same_fingerprint(mine, theirs, "dir/checkpoint.xml");
        FAIL() << "mismatch accepted";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("dir/checkpoint.xml"), std::string::npos);
        EXPECT_NE(message.find("kernel-sha256: the checkpoint has 'abd', this run has 'abc'"), std::string::npos);
        EXPECT_NE(message.find("seed: the checkpoint has nothing"), std::string::npos);
        EXPECT_NE(message.find("colour: the checkpoint has 'red', this run has nothing"), std::string::npos);
        EXPECT_EQ(message.find("population"), std::string::npos);
    }
}

TEST(Checkpoint, DamagedFilesAreClearErrors) {
    const fs::path dir = fs::temp_directory_path() / ("gi-checkpoint-damaged-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path file = dir / "checkpoint.xml";
    auto error_for = [&](const std::string& content) -> std::string {
        write_file_atomically(file, content);
        try {
            load_checkpoint(file);
        } catch (const Error& e) {
            return e.what();
        }
        return "(no error)";
    };
    Checkpoint good;
    good.rng_state = Rng(1).save();
    good.record = sample_record();
    good.next_generation = 1;
    save_checkpoint(file, good);
    const std::string text = read_text_file(file);

    EXPECT_NE(error_for(text.substr(0, text.size() / 2)).find("not a readable checkpoint"), std::string::npos);
    EXPECT_NE(error_for("<other/>").find("not a gi-tool checkpoint"), std::string::npos);
    EXPECT_NE(error_for("<gi-checkpoint format=\"3\" phase=\"search\" next-generation=\"0\"/>").find("format 3"),
              std::string::npos);
    std::string bad_phase = text;
    bad_phase.replace(bad_phase.find("phase=\"search\""), 14, "phase=\"dance\"");
    EXPECT_NE(error_for(bad_phase).find("unknown phase 'dance'"), std::string::npos);
    std::string no_rng = text;
    no_rng.replace(no_rng.find("<rng "), 5, "<rnx ");
    EXPECT_NE(error_for(no_rng).find("lacks <rng>"), std::string::npos);
    std::string bad_number = text;
    bad_number.replace(bad_number.find("median-ms=\""), 11, "median-ms=\"x");
    EXPECT_NE(error_for(bad_number).find("not a number"), std::string::npos);
    std::string bad_status = text;
    bad_status.replace(bad_status.find("status=\"ok\""), 11, "status=\"meh\"");
    EXPECT_NE(error_for(bad_status).find("unknown status 'meh'"), std::string::npos);
    // A generation number out of range, or one the run record does not bear out, is damage: it
    // once ran "generation -4/60" or wrapped to 1215752191 silently.
    auto with_next = [&](const std::string& value) {
        std::string changed = text;
        changed.replace(changed.find("next-generation=\"1\""), 19, "next-generation=\"" + value + "\"");
        return error_for(changed);
    };
    EXPECT_NE(with_next("-5").find("next-generation=\"-5\" is not a generation number"), std::string::npos)
        << with_next("-5");
    EXPECT_NE(with_next("99999999999").find("is not a generation number"), std::string::npos);
    EXPECT_NE(with_next("7").find("the run record holds 1 finished generation(s)"), std::string::npos) << with_next("7");
    EXPECT_EQ(with_next("1"), "(no error)");
    // Every message names the file and says what to do.
    const std::string message = error_for("<other/>");
    EXPECT_NE(message.find(file.string()), std::string::npos) << message;
    EXPECT_NE(error_for(bad_phase).find(":"), std::string::npos);
    fs::remove(file);
    try {
        load_checkpoint(file);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos);
    }
    fs::remove_all(dir);
}

TEST(AtomicFile, ReplacesContentAndLeavesNoTemporaryFiles) {
    const fs::path dir = fs::temp_directory_path() / ("gi-atomic-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    write_file_atomically(dir / "f.txt", "one");
    write_file_atomically(dir / "f.txt", "two");
    EXPECT_EQ(read_text_file(dir / "f.txt"), "two");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
    EXPECT_THROW(write_file_atomically(dir / "missing" / "f.txt", "x"), Error);
    EXPECT_THROW(read_text_file(dir / "missing.txt"), Error);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace gi
