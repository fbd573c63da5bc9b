# Copyright: (c) 2026, s390x.network contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Pure helpers of the emulated smc-tools (no FUSE needed): number abbreviation and averages."""

import pytest

from zlab.tools import _smc, _smccmd


@pytest.mark.parametrize(
    "num,text",
    [
        (0, "0"),
        (51, "51"),
        (999, "999"),
        (1000, "1.000K"),
        (999949, "999.9K"),
        (999999, " 1000K"),
        (358191491, "358.2M"),
        (358191451596, "358.2G"),
        (71638302336, "71.64G"),
        (1234567890123, "1.235T"),
    ],
)
def test_abbreviated_like_smc_tools_get_abbreviated(num, text):
    assert _smc.abbreviated(num) == text


def test_float32_average_of_the_study():
    # smc-tools keeps the average in a C float: 716382992 / 51 prints as 14046725.0
    assert "%14.1f" % _smccmd.f32(716382992 / 51.0) == "    14046725.0"
