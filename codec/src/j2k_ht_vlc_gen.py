#!/usr/bin/env python3
"""j2k_ht_vlc_gen.py - writes j2k_ht_vlc.h, the CxtVLC decoding table of the HTJ2K cleanup pass.

The codewords below are the normative data of ITU-T T.814 | ISO/IEC 15444-15, Annex C (the CxtVLC
code tables: one for quads of the initial quad row, one for the other rows). Each word here is one
codeword of those tables in this project's layout (7 hex digits):
    context c_q (3 bits) | rho (4) | u_off (1) | e_k (4) | e_1 (4) | codeword (7) | length (3)
the codeword read least significant bit first from the VLC stream. The generated header expands
them into one 16-bit entry for every context and every 7 bits the stream may show next:
    rho | u_off << 4 | e_k << 5 | e_1 << 9 | length << 13      (0: no codeword, nothing decoded)
indexed [table][c_q << 7 | next 7 bits]. Run: python3 j2k_ht_vlc_gen.py > j2k_ht_vlc.h
"""

INITIAL_ROW = """
    0080034 00c45ff 0100003 0148bff 018008d 01c8aff 01cc4ff 0200013 025109e 0280075
    02d111e 02d447f 030001e 034037f 038017f 03c8a7f 03c806e 0400023 04621ee 04800ee
    04c016e 050000d 05621ae 0568bbf 05801bf 05c46bf 05c404e 06000f5 06730bf 06710ae
    067212e 068033f 06c453f 06d523f 06f603f 07003df 0748a5f 076a02e 07791df 07802df
    07e64df 07eeb5f 07ff15f 07fe1ce 07f9b9f 07f88ce 07fd45f 07fd14e 07fc59f 0800002
    0880074 08c44ff 0900034 09489de 09800de 09c01ee 0a00054 0a5115e 0a8005e 0ad119e
    0ad47ff 0b0009e 0b4011e 0b801ff 0bc8aff 0bc801e 0c00014 0c620ee 0c8016e 0cc006e
    0d001ae 0d620ae 0d68b7f 0d8017f 0dc467f 0dc408e 0e0000d 0e6212e 0e7102e 0e8007f
    0ec44bf 0ed51ce 0ef63bf 0f001bf 0f48abf 0f6a0ce 0f7933f 0f8003f 0fee14e 0fe213f
    0fe884e 0ff918e 0ffc63f 1000002 1080074 10c44de 1100034 11489ff 118015e 11c459e
    11ccbff 1200054 125105e 128000d 12d557f 12d449e 12d511e 130001e 13402ff 13800ff
    13c8b7f 13cc48e 13dd1bf 1400014 146227f 14801ee 14c00ee 150016e 154006e 158007f
    15c8bbf 15c81ae 16000ae 165112e 16722bf 16800bf 16e202e 16f11ce 16f473f 170013f
    1748bdf 17480ce 178023f 17fc54e 17c444e 17cc83f 17dd18e 17fe1df 1800003 1880024
    18c45ee 1900065 1948a7f 19800ee 19c442e 19ccbff 1a000b5 1a5116e 1a80035 1ad54d5
    1ad446e 1ad51ae 1b001ff 1b512ff 1b588ff 1b8037f 1bd997f 1bd90ae 1bdcfbf 1bdc52e
    1bdc87f 1c00055 1c6203f 1c801ce 1cc45bf 1ce62bf 1d000ce 1d6214e 1d688bf 1d8033f
    1dec53f 1dc463f 1dcc84e 1dee3df 1e0018e 1e5108e 1e721df 1e802df 1ee64df 1ef555f
    1ef450e 1ef735f 1ef500e 1ef625f 1f0005f 1f7939f 1f5109f 1f721f6 1f7899f 1f8029f
    1fea876 1fee71f 1fff01f 1ffe095 1ff991f 1ffd4f6 1ffd015 1ffce1f 1ffc4e5 1ffc976
    2000002 2080074 20c45ff 2100034 21488de 218015e 21c89ee 21cc7ff 2200054 22512ff
    228005e 22c019e 230009e 234011e 23800ff 23d137f 23d001e 2400014 24620ee 248008e
    24c03bf 250000d 256a97f 256896e 256a06e 258027f 25ec87f 25c01ae 26000ae 266212e
    26711bf 26802bf 26c443f 26c402e 27000bf 27511ce 27720ce 2778b3f 278013f 27e663f
    27e454e 27ddbdf 27dc84e 27ee18e 27fd1df 2800003 28800d5 28c47ff 2900055 29488ee
    298016e 29cceff 29cc9ce 29cc5ff 2a00095 2a510ff 2a8006e 2ad11ae 2ad477f 2b000ae
    2b4892e 2b5917f 2b8027f 2bd9abf 2bd902e 2bdcc7f 2bdcbbf 2bdc5bf 2c00015 2c620ce
    2c80136 2ce20bf 2ce473f 2d000e5 2d6a94e 2d6884e 2d6a18e 2d8013f 2de643f 2de608e
    2dece3f 2dec90e 2dec7df 2e0000e 2e621f6 2e711df 2e802df 2ee675f 2ee60f6 2ef54df
    2ef5176 2ef455f 2f0025f 2f5985f 2f7a99f 2f78876 2f7b39f 2f7a1b6 2f7929f 2f8009f
    2fdde1f 2fdd8b6 2fdd71f 2fff11f 2ffd065 2ff641f 2ffe9ef 2ffe0a5 2ffcfef 2ffc825
    2ffc436 3000003 3080024 30c441e 3100065 314886e 31800d5 31ccdee 31cc4ee 31cc96e
    3200055 32511ff 32801ae 32c44ae 32d53ff 330012e 3348aff 33590ff 338037f 33d9a7f
    33d902e 33dcd7f 33dc5b6 33dcbbf 3400095 346207f 34801ce 34c45bf 34e62bf 35000ce
    354894e 356a0bf 358033f 35e663f 35e444e 35ee93f 35ec98e 35ee3df 360008e 367303f
    367210e 36711df 36802df 36d559f 36d500e 36f20df 36f475f 370015f 3778a5f 374885f
    377b39f 377a1f6 377929f 378009f 37d98f6 37fa976 37fcc76 37fc815 37ee71f 37ff0b6
    37fe036 37fd51f 37fc4e5 37fd136 3800095 388002e 38c47ff 39001ce 39489ff 39802ff
    39cccff 39ccb7f 39cc57f 3a0027f 3a5107f 3a802bf 3ac44ce 3ad53bf 3b001bf 3b4014e
    3b800bf 3bd9b3f 3bdcd3f 3bdca3f 3bdd4df 3bdc44e 3bdd03f 3c003df 3c621df 3c802df
    3cc018e 3d0029f 3d4888e 3d6a35f 3d8015f 3de665f 3decc5f 3dec79f 3dee99f 3dec90e
    3dee09f 3e0031f 3e6211f 3e7121f 3e8001f 3ee67ef 3ef56ef 3ef440e 3ef71ef 3ef51f6
    3ef60ef 3f0036f 3f5996f 3f7a86f 3f788f6 3f7b26f 3f7a076 3f793af 3f800af 3fffc35
    3fff5af 3ffdeaf 3ffd4d5 3ffed2f 3ffcc55 3ffe576 3ffc404 3fffb2f 3ffd9b6 3ffe815
    3ffc864 3fff0b6 3ffe024 3ffd044
"""

OTHER_ROWS = """
    0080003 00c453e 0100033 01488be 018006d 01c01de 0200013 025103e 02800ad 02c015e
    030000d 03403ff 03800ff 03c00de 0400023 046202d 04800cd 04c009e 050004d 056205e
    05689ff 05802ff 05c019e 060008d 066211e 067137f 068007f 06c001e 070017f 075127f
    07501ee 07803bf 07c45bf 07c40ee 0800001 088002c 08c47ff 090004c 09488ff 09800ed
    09c45ff 09ccaff 0a0006d 0a511bf 0a8001e 0ac037f 0b0017f 0b4027f 0b8007f 0bc03bf
    0c0000c 0c620bf 0c8005e 0cc02bf 0d0019e 0d4033f 0d8013f 0dc015f 0e0009e 0e4023f
    0e8003f 0ec03df 0f001df 0f402df 0f800df 0fd135f 0fd011e 1000001 108004c 10c47ff
    110000c 114891e 11801ee 11c89ff 11cc4ff 12000ad 12512ff 128001e 12c037f 130017f
    134027f 138007f 13c00bf 140002d 14623bf 14801bf 14c02bf 15000ee 156abdf 156896e
    156a33f 158013f 15eca3f 15c003f 160006e 16401df 16802df 16c00df 170035f 175115f
    175025f 178005f 17d139f 17d459f 17dca9f 17fe09f 1800002 1880054 18c445e 1900014
    194891e 1980075 19ccfff 19cc99e 19cc49e 1a000b5 1a511ff 1a8001e 1ac45ee 1ad50ff
    1b000ee 1b402ff 1b8016e 1bd117f 1bd44f6 1bdcb7f 1c00035 1c6227f 1c8006e 1cc01ae
    1d000ae 1d4892e 1d6a07f 1d8002e 1de21ce 1deccbf 1dec8ce 1dec7bf 1e0014e 1e4004e
    1e801bf 1ed12bf 1ed018e 1f0033f 1f5113f 1f7223f 1f78b5f 1f8008e 1fd983f 1fdcfdf
    1ffe9df 1ffc90e 1ffe00e 1fea2df 1ffd4df 1ffc5f6 1ffd15f 2000001 208006d 20c47ff
    21000ad 21489ff 21802ff 21c037f 220004c 225111e 228019e 22c00ff 230009e 234017f
    238027f 23c02bf 240000c 246207f 24803bf 24c01bf 25000ee 25400bf 258033f 25c035f
    260002d 267313f 267223f 267103f 26803df 26c01df 27002df 27488df 274801e 278015f
    27c465f 27cc85f 27cc1ee 2800002 28800f5 28c45de 2900055 29489ff 29800de 29c005e
    2a00014 2a5115e 2a80075 2ad119e 2ad47ff 2b0009e 2b4037f 2b8011e 2bc8aff 2bc80ae
    2c000b5 2c6201e 2c801ee 2cc00ff 2d000ee 2d4016e 2d8006e 2dc467f 2dc41ae 2e00035
    2e5112e 2e7217f 2e8002e 2ec47bf 2ed51ce 2ef607f 2f000ce 2f48abf 2f6a00e 2f791bf
    2f800d5 2fe64bf 2ff573f 2ffcc3f 2ffc54e 2fdd93f 2fff04e 2ffd18e 2ffea3f 2ffe08e
    2ffc90e 3000003 3080014 30c441e 3100064 31489ee 31800ee 31c886e 31cc7ff 3200024
    325116e 3280055 32d11ae 32d457f 33000ae 33489ff 33592ff 338012e 33c894e 33cc4ff
    33dd37f 34000b5 346202e 34801ce 34c00ce 3500035 356a87f 356884e 356a27f 3580076
    35ecbbf 35c89bf 35ea2bf 35ec63f 36000d5 36730bf 367233f 367113f 368018e 36f503f
    36d13df 36f21df 36f455f 370008e 37792df 37510df 377ab5f 377a10e 377899f 378000e
    37cce5f 37dd85f 37feb9f 37fc9f6 37ee69f 37ff31f 37fe0f6 37fd49f 37fd176 37fc51f
    3800024 388019e 38c449e 390011e 3948bff 398001e 39c45ff 39ccb7f 3a0016e 3a512ff
    3a800b5 3ac45ee 3ad50ff 3b000ee 3b403bf 3b80035 3bdd17f 3bd127f 3bdcc7f 3bdc46e
    3bdcabf 3c001ae 3c621bf 3c800ae 3cc013f 3d0012e 3d4014e 3d800d5 3dec4bf 3dc473f
    3dcc82e 3dee3df 3e001ce 3e400ce 3e80065 3ef463f 3ec443f 3ed504e 3ef60df 3f0018e
    3f789df 3f48adf 3f6a1f6 3f7905f 3f80003 3ffff5f 3ffdd5f 3ffee5f 3ffcc8e 3fdd90e
    3ffe80e 3ffc855 3fee4f6 3fff076 3ffe095 3ffd576 3ffc415 3ffd0e5
"""


def expand(text):
    lut = [0] * 1024
    for tok in text.split():
        w = int(tok, 16)
        cq, rho, uoff = w >> 23, (w >> 19) & 15, (w >> 18) & 1
        ek, e1, cwd, ln = (w >> 14) & 15, (w >> 10) & 15, (w >> 3) & 127, w & 7
        entry = rho | uoff << 4 | ek << 5 | e1 << 9 | ln << 13
        for bits in range(128):
            if bits & ((1 << ln) - 1) == cwd:
                idx = cq << 7 | bits
                if lut[idx]:
                    raise SystemExit("codewords overlap at context %d bits %02x" % (cq, bits))
                lut[idx] = entry
    return lut


def main():
    lut = expand(INITIAL_ROW) + expand(OTHER_ROWS)
    print("/* j2k_ht_vlc.h - generated by j2k_ht_vlc_gen.py (which holds the codewords of ITU-T T.814")
    print(" * Annex C and says how to read this table); do not edit. */")
    print("#ifndef PCWT_J2K_HT_VLC_H")
    print("#define PCWT_J2K_HT_VLC_H")
    print("")
    print("/* [2][1024]: initial quad row, then the other rows; index c_q << 7 | next 7 VLC bits. */")
    print("#define PCWT_J2K_HT_VLC_LUT_INIT \\")
    print("    { \\")
    for i in range(0, len(lut), 12):
        row = ", ".join("0x%04x" % v for v in lut[i:i + 12])
        print("        %s%s \\" % (row, "," if i + 12 < len(lut) else ""))
    print("    }")
    print("")
    print("#endif /* PCWT_J2K_HT_VLC_H */")


if __name__ == "__main__":
    main()
