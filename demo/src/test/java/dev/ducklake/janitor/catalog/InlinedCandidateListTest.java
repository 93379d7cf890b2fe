package dev.ducklake.janitor.catalog;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The compact candidate list gives back exactly the rows it was given, ctids included. */
class InlinedCandidateListTest {

    @Test
    void rowsComeBackAsTheyWentIn() {
        InlinedCandidateList l = new InlinedCandidateList();
        for (int i = 0; i < 100; i++) {
            l.addRegistered(1_000_000_000_000L + i, i, "(" + (4_294_967_295L - i) + "," + (i % 7 == 0 ? 65535 : i + 1) + ")", i % 3 != 0);
        }
        l.trim();
        assertThat(l).hasSize(100);
        InlinedCandidate c = l.get(7);
        assertThat(c.kind()).isEqualTo(InlinedCandidate.Origin.REGISTERED);
        assertThat(c.tableId()).isEqualTo(1_000_000_000_007L);
        assertThat(c.schemaVersion()).isEqualTo(7);
        assertThat(c.ctid()).isEqualTo("(4294967288,65535)");
        assertThat(l.get(99).ctid()).isEqualTo("(4294967196,100)");
        assertThat(l.subList(10, 12)).extracting(InlinedCandidate::tableId).containsExactly(1_000_000_000_010L, 1_000_000_000_011L);
    }

    @Test
    void presenceIsLookedUpByKeyAndCountedOncePerTable() {
        InlinedCandidateList l = new InlinedCandidateList();
        l.addRegistered(-3, 1, "(0,1)", true);      // a negative id sorts first, as bigint does on the server
        l.addRegistered(2, 1, "(0,2)", true);
        l.addRegistered(2, 1, "(0,3)", true);       // a second row naming the same table
        l.addRegistered(2, 10, "(0,4)", false);     // its table was gone at the survey
        l.addRegistered(10, 2, "(0,5)", true);
        l.addRegistered(Long.MAX_VALUE, 1, "(0,6)", true);
        l.trim();
        assertThat(l.presentAtSurvey(-3, 1)).isTrue();
        assertThat(l.presentAtSurvey(2, 1)).isTrue();
        assertThat(l.presentAtSurvey(2, 10)).as("gone at the survey").isFalse();
        assertThat(l.presentAtSurvey(10, 2)).isTrue();
        assertThat(l.presentAtSurvey(Long.MAX_VALUE, 1)).isTrue();
        assertThat(l.presentAtSurvey(10, 1)).as("not a candidate").isFalse();
        assertThat(l.presentAtSurvey(11, 2)).as("not a candidate").isFalse();
        assertThat(l.tablesPresentAtSurvey()).as("-3/1, 2/1 once, 10/2, max/1").isEqualTo(4);
        assertThat(new InlinedCandidateList().trim().tablesPresentAtSurvey()).isZero();
    }

    @Test
    void ctidsOutsideTheirRangeAreRefused() {
        assertThatThrownBy(() -> InlinedCandidateList.packCtid("(4294967296,1)")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InlinedCandidateList.packCtid("(1,65536)")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> InlinedCandidateList.packCtid("1,2")).isInstanceOf(IllegalArgumentException.class);
        assertThat(InlinedCandidateList.unpackCtid(InlinedCandidateList.packCtid("(0,1)"))).isEqualTo("(0,1)");
    }

    @Test
    void concatenationReadsTheRegisteredThenTheUnregistered() {
        InlinedCandidateList registered = new InlinedCandidateList();
        registered.addRegistered(5, 1, "(0,1)", true);
        List<InlinedCandidate> unregistered = List.of(new InlinedCandidate(InlinedCandidate.Origin.INLINED_DELETE, 9, -1, null));
        List<InlinedCandidate> all = InlinedCandidateList.concat(registered, unregistered);
        assertThat(all).extracting(InlinedCandidate::tableId).containsExactly(5L, 9L);
        assertThat(InlinedCandidateList.concat(registered, List.of())).isSameAs(registered);
    }
}
